/**
 * One-off for merging the issue-20 branches: rewrites relative imports of the modules that moved out of
 * src/shared (and of the symbols that moved between them) to where they are now. Idempotent; run it on a
 * merged tree, then `npx prettier --write` the files it names. Delete once every branch is merged.
 *
 * Usage: `node scripts/rewriteImports.mjs [root]`
 */
import fs from 'node:fs';
import path from 'node:path';

const moves = {
  'src/shared/protocol.ts': 'src/shared/wire/webviewProtocol.ts',
  'src/shared/workerProtocol.ts': 'src/shared/wire/workerProtocol.ts',
  'src/shared/runState.ts': 'src/shared/run/runState.ts',
  'src/shared/transcript.ts': 'src/shared/transcript/reduce.ts',
  'src/shared/extensionUi.ts': 'src/shared/transcript/dialogsAndWidgets.ts',
  'src/shared/projection.ts': 'src/worker/projection.ts',
};

const symbols = {
  'src/shared/wire/webviewProtocol.ts': {
    BlockKind: 'src/shared/wire/events.ts',
    StopReason: 'src/shared/wire/events.ts',
    CompactionReason: 'src/shared/wire/events.ts',
    SummarySource: 'src/shared/wire/events.ts',
    UsageView: 'src/shared/wire/events.ts',
    BlockFinal: 'src/shared/wire/events.ts',
    WireEvent: 'src/shared/wire/events.ts',
    FileChangeView: 'src/shared/wire/events.ts',
    NoticeLevel: 'src/shared/wire/events.ts',
    NoticeCode: 'src/shared/wire/events.ts',
    assertNever: 'src/shared/exhaustive.ts',
    parseWebviewMessage: 'src/shared/wire/parseWebviewMessage.ts',
  },
  'src/shared/transcript/dialogsAndWidgets.ts': {
    DialogKind: 'src/shared/wire/events.ts',
    DialogView: 'src/shared/wire/events.ts',
    ExtensionUiEvent: 'src/shared/wire/events.ts',
  },
  'src/shared/transcript/reduce.ts': {
    BlockView: 'src/shared/transcript/rows.ts',
    MessageRole: 'src/shared/transcript/rows.ts',
    MessageView: 'src/shared/transcript/rows.ts',
    ToolStatus: 'src/shared/transcript/rows.ts',
    ToolCardView: 'src/shared/transcript/rows.ts',
    TranscriptState: 'src/shared/transcript/rows.ts',
    toolOf: 'src/shared/transcript/rows.ts',
    toolCard: 'src/shared/transcript/rowStore.ts',
    toolCallBlock: 'src/shared/transcript/rowStore.ts',
    firstRowId: 'src/shared/transcript/rowStore.ts',
    openMessage: 'src/shared/transcript/rowStore.ts',
    SNAPSHOT_ROWS: 'src/shared/transcript/paging.ts',
    MAX_PAGE_ROWS: 'src/shared/transcript/paging.ts',
    recentPart: 'src/shared/transcript/paging.ts',
    EarlierPage: 'src/shared/transcript/paging.ts',
    earlierPage: 'src/shared/transcript/paging.ts',
    prependRows: 'src/shared/transcript/paging.ts',
  },
  'src/shared/run/runState.ts': {
    describeStatus: 'src/extension/statusTexts.ts',
    StatusTexts: 'src/extension/statusTexts.ts',
    StatusItemText: 'src/extension/statusTexts.ts',
    TRANSIENT_STATUS_MS: 'src/extension/statusTexts.ts',
    summaryRetryText: 'src/shared/run/runCondition.ts',
  },
};

const root = path.resolve(process.argv[2] ?? '.');

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', '.git', '.vscode-test', 'out'].includes(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(ts|mts|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

const rel = (p) => path.relative(root, p).split(path.sep).join('/');
function spec(fromFile, target) {
  const r = path.relative(path.dirname(fromFile), path.join(root, target)).split(path.sep).join('/');
  return r.startsWith('.') ? r : './' + r;
}

for (const file of walk(root, [])) {
  const src = fs.readFileSync(file, 'utf8');
  const target = (s) => {
    const old = rel(path.resolve(path.dirname(file), s));
    return moves[old] ?? old;
  };
  let out = src.replace(/import (type )?\{([^}]*)\} from '(\.[^']+)';/g, (whole, typeKw, names, s) => {
    const t = target(s);
    const table = symbols[t];
    if (!table) return `import ${typeKw ?? ''}{${names}} from '${spec(file, t)}';`;
    const groups = new Map();
    for (const raw of names
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean)) {
      const name = raw
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]
        .trim();
      const dest = table[name] ?? t;
      if (!groups.has(dest)) groups.set(dest, []);
      groups.get(dest).push(raw);
    }
    return [...groups]
      .map(([dest, list]) => {
        const allType = typeKw || list.every((n) => n.startsWith('type '));
        const items = typeKw ? list : allType ? list.map((n) => n.replace(/^type\s+/, '')) : list;
        return `import ${allType ? 'type ' : ''}{ ${items.join(', ')} } from '${spec(file, dest)}';`;
      })
      .join('\n');
  });
  out = out.replace(/import\('(\.[^']+)'\)/g, (whole, s) => `import('${spec(file, target(s))}')`);
  if (out !== src) {
    fs.writeFileSync(file, out);
    console.log(rel(file));
  }
}
