/** The header's read-out of the open session: model, thinking level, context use, name and totals. */

import type { SessionInfoView } from '../shared/wire/webviewProtocol.ts';
import type { AgentSessionLike } from './agentSession.ts';
import { statsView } from './sessionRuntime.ts';
import { contextBreakdown } from './contextBreakdown.ts';
import { signInProviders } from './providerAuth.ts';

/** What the header shows of `s` (nothing but `ready: false` without a session). */
export function sessionInfoView(
  s: AgentSessionLike | undefined,
  context: { readonly noModel: boolean; readonly cwd: string | undefined; readonly collapseThinking: boolean },
): SessionInfoView {
  const m = context.noModel ? undefined : s?.model;
  const modelId = m ? `${m.provider}/${m.id}` : undefined;
  const stats = s ? statsView(s) : undefined;
  const breakdown = s && !context.noModel ? contextBreakdown(s) : undefined;
  return {
    ready: s !== undefined,
    // The model's display name when it has one ("Claude Sonnet 4.5", "Scripted demo model"), else provider/id.
    model: m?.name && m.name !== m.id ? m.name : modelId,
    modelId,
    thinkingLevel: s?.thinkingLevel,
    cwd: context.cwd,
    collapseThinking: context.collapseThinking,
    contextPercent: contextPercent(s),
    ...(s?.sessionName ? { name: s.sessionName } : {}),
    ...(stats ? { stats } : {}),
    ...(breakdown ? { context: breakdown } : {}),
    // No model has credentials: the view welcomes the user with the providers to sign in to, instead of an error.
    ...(s && context.noModel ? { noModel: true, providers: signInProviders(s.modelRuntime) } : {}),
  };
}

function contextPercent(s: AgentSessionLike | undefined): number | undefined {
  try {
    const p = s?.getContextUsage?.()?.percent;
    return typeof p === 'number' && Number.isFinite(p) ? Math.round(p) : undefined;
  } catch {
    return undefined;
  }
}
