import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { startMockAnthropic } from './mockAnthropic.ts';
import { loadScenarioFile } from './scenarioLoader.ts';
import { loadScenarioPack } from './scenarioPack.ts';
import type { Scenario } from './scenarioSchema.ts';

const usage = 'usage: outrigger mock-anthropic [--port 0] [--host 127.0.0.1] [--scenario FILE|demo] [--no-strict]';

/**
 * Runs a mock Anthropic API until SIGINT or SIGTERM. The first stdout line is exactly the URL,
 * so a parent process can read it and use it as ANTHROPIC_BASE_URL.
 */
export async function runMockAnthropicCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      scenario: { type: 'string', default: 'demo' },
      'no-strict': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535\n${usage}`);

  const mock = await startMockAnthropic({
    scenario: resolveScenario(values.scenario),
    strict: !values['no-strict'],
    port,
    host: values.host,
  });
  process.stdout.write(`${mock.url}\n`);

  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  await mock.close();
}

/** `demo` (or any other pack name without a path) is a bundled scenario; anything else is a file path. */
function resolveScenario(value: string): Scenario {
  const looksLikePath = value.includes('/') || value.includes('\\') || value.endsWith('.json');
  return looksLikePath ? loadScenarioFile(value) : loadScenarioPack(value);
}
