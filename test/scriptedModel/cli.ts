/** Command line for the scripted model: `node test/scriptedModel/cli.ts --scenario FILE --port N [--requests-out FILE]`. */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadScenario } from './scenario.ts';
import { startScriptedModel } from './server.ts';

const usage = 'usage: node test/scriptedModel/cli.ts --scenario FILE [--port N] [--host 127.0.0.1] [--requests-out FILE]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      'requests-out': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  if (!values.scenario) throw new Error(`--scenario is required\n${usage}`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
  const requestsFile = values['requests-out'];
  // Start the file empty so a reused path does not mix runs.
  if (requestsFile) writeFileSync(requestsFile, '');
  const scenario = await loadScenario(values.scenario);
  const model = await startScriptedModel({ scenario, port, host: values.host, requestsFile });
  model.onRequest = (_body, stepIndex) => console.error(`scripted model: request ${stepIndex + 1} (${scenario.name})`);
  console.log(model.url);
  const stop = (): void => {
    void model.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
