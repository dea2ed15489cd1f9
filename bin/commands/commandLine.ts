import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { errorText } from './errorText.ts';

/** What a subcommand says about its arguments; `--help`/`-h` is added to every one. */
export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  /** The subcommand's name, as errors name it (`outrigger chat: …`). */
  readonly name: string;
  /** The whole help text, printed for `--help` and after a usage error. */
  readonly usage: string;
  readonly options: O;
}

type Values<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: O; args: string[]; strict: true; allowPositionals: false }>
>['values'];

/**
 * The parsed options, or undefined when the command has already answered: help printed (exit 0) or a
 * usage error reported (exit 2). Run as an npm script, options npm kept for itself are recovered (see
 * `npmTakenOptions`) or, when their value is lost, reported with the form that works.
 */
export function parseCommandLine<O extends ParseArgsOptionsConfig>(
  spec: CommandSpec<O>,
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Values<O> | undefined {
  const fail = (message: string): undefined => {
    process.stderr.write(`outrigger ${spec.name}: ${message}\n\n${spec.usage}`);
    process.exitCode = 2;
    return undefined;
  };
  const taken = npmTakenOptions(spec.options, env);
  if (taken.lost.length > 0) {
    const flags = taken.lost.map((name) => `--${name}`).join(', ');
    return fail(
      `npm kept ${flags} for itself and passed the value on alone. ${npmHint(env, spec.name, taken.lost[0])}`,
    );
  }
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...taken.recovered, ...argv],
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const hint = env.npm_lifecycle_event === undefined ? '' : `. ${npmHint(env, spec.name)}`;
    return fail(`${errorText(error)}${hint}`);
  }
  if (values.help === true) {
    process.stdout.write(spec.usage);
    return undefined;
  }
  delete values.help;
  return values as Values<O>;
}

/** How to write options so that the npm script running us receives them. */
function npmHint(env: NodeJS.ProcessEnv, command: string, option = 'option'): string {
  const script = env.npm_lifecycle_event === 'start' ? 'npm start' : `npm run ${env.npm_lifecycle_event}`;
  // `npm start` runs `outrigger.ts start`; `npm run outrigger` runs `outrigger.ts` and needs the subcommand.
  const namesCommand = /outrigger\.ts\s+\S/.test(env.npm_lifecycle_script ?? '');
  return `npm passes options on only after \`--\`: ${script} -- ${namesCommand ? '' : `${command} `}--${option} VALUE`;
}

/**
 * Run as `npm start --data-dir=DIR`, npm keeps an option it does not know as `npm_config_data_dir=DIR`
 * instead of passing it to the script; written with a space (`--data-dir DIR`) it keeps `true` and passes
 * DIR on as a bare argument that no longer says which option it was. The first form is `recovered` as
 * `--data-dir=DIR`; the second is `lost`. (`--cwd` never reaches us: npm reads it as its own `-c -w -d`
 * and fails before the script runs.) Outside an npm script both lists are empty.
 */
export function npmTakenOptions(
  options: ParseArgsOptionsConfig,
  env: NodeJS.ProcessEnv,
): { recovered: string[]; lost: string[] } {
  const recovered: string[] = [];
  const lost: string[] = [];
  if (env.npm_lifecycle_event === undefined) return { recovered, lost };
  for (const [name, option] of Object.entries(options)) {
    const value = env[`npm_config_${name.replaceAll('-', '_')}`];
    if (value === undefined) continue;
    if (option.type === 'boolean') {
      if (value === 'true') recovered.push(`--${name}`);
    } else if (value === 'true' || value === '') {
      lost.push(name);
    } else {
      recovered.push(`--${name}=${value}`);
    }
  }
  return { recovered, lost };
}
