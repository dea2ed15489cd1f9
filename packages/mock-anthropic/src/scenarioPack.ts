import { fileURLToPath } from 'node:url';
import { loadScenarioFile } from './scenarioLoader.ts';
import type { Scenario } from './scenarioSchema.ts';

const packDirectory = new URL('../scenarios/', import.meta.url);

/** Loads a scenario shipped with this package (`scenarios/<name>.json`). */
export function loadScenarioPack(name: string): Scenario {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`unknown scenario pack ${JSON.stringify(name)}`);
  return loadScenarioFile(fileURLToPath(new URL(`${name}.json`, packDirectory)));
}

/** The embedded demo model, used when there is no API key; its keywords are listed in the README. */
export const demoScenario: Scenario = loadScenarioPack('demo');
