/** Writes a throwaway Pi agent directory whose default model is the scripted model. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from './tempDir.ts';

export const SCRIPTED_PROVIDER = 'scripted';
export const SCRIPTED_MODEL_ID = 'scripted-model';
export const SCRIPTED_API_KEY = 'scripted-key';

export interface PiAgentDirOptions {
  /** The scripted model's base URL, e.g. `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  /** Directory to write into (created if missing); default: a new temporary directory. */
  readonly dir?: string;
  /** Pi's agent-level retry; default 3 retries from 50 ms so retry tests stay fast. */
  readonly retry?: { readonly maxRetries: number; readonly baseDelayMs: number };
  /** Extra top-level settings.json entries, merged over the defaults written here. */
  readonly settings?: Readonly<Record<string, unknown>>;
}

/** The models.json content naming the scripted provider (exported for tests that register it in code). */
export function scriptedModelsJson(baseUrl: string): Record<string, unknown> {
  return {
    providers: {
      [SCRIPTED_PROVIDER]: {
        name: 'Scripted',
        baseUrl,
        api: 'openai-completions',
        apiKey: SCRIPTED_API_KEY,
        models: [
          {
            id: SCRIPTED_MODEL_ID,
            name: 'Scripted Model',
            // Makes Pi read `reasoning_content` deltas as thinking.
            reasoning: true,
            input: ['text', 'image'],
            // Small non-zero prices so cost displays have something to show.
            cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
            contextWindow: 32000,
            maxTokens: 4096,
          },
        ],
      },
    },
  };
}

/** Creates the agent dir with models.json, settings.json and an empty auth.json; resolves to its path. */
export async function makePiAgentDir(options: PiAgentDirOptions): Promise<string> {
  const dir = options.dir ?? tempDir('pi-agent-');
  await mkdir(dir, { recursive: true });
  const retry = options.retry ?? { maxRetries: 3, baseDelayMs: 50 };
  const settings = {
    defaultProvider: SCRIPTED_PROVIDER,
    defaultModel: SCRIPTED_MODEL_ID,
    defaultThinkingLevel: 'medium',
    retry: { enabled: true, maxRetries: retry.maxRetries, baseDelayMs: retry.baseDelayMs, maxAgentDelayMs: 2000 },
    // Nothing in a test run should phone home or warm caches.
    enableInstallTelemetry: false,
    cacheWarming: 'off',
    quietStartup: true,
    ...options.settings,
  };
  await writeFile(join(dir, 'models.json'), JSON.stringify(scriptedModelsJson(options.baseUrl), null, 2) + '\n');
  await writeFile(join(dir, 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
  await writeFile(join(dir, 'auth.json'), '{}\n', { mode: 0o600 });
  return dir;
}
