import { parseSidecarDiagnostic } from '@outrigger/claude-sdk-sidecar/process';
import type { RuntimeLogger } from '../logging/runtimeLogger.ts';

/** The sidecar's diagnostic prefixes and the log event each becomes. */
const diagnosticEvents: Readonly<Record<string, string>> = {
  CLAUDE_CODE_CANCEL_DIAGNOSTIC: 'agent_session.claude_sdk.cancel_diagnostic',
  CLAUDE_CODE_PROVIDER_TURN_DIAGNOSTIC: 'agent_session.claude_sdk.provider_turn_diagnostic',
  CLAUDE_CODE_AUTH_REFRESH_DEBUG: 'agent_session.claude_sdk.auth_refresh_debug',
};

export const stderrTailLimits = { lines: 40, chars: 2_000 } as const;

/**
 * Sorts the sidecar's stderr: a `PREFIX {json}` diagnostic becomes one structured log record (its
 * payload is secret-free by the sidecar's design: ids, counts, stages, fingerprints), level warn when it
 * says `severity: "warning"`; every other line only feeds the bounded tail that explains an exit.
 */
export class SidecarStderr {
  readonly #logger: RuntimeLogger;
  readonly #sidecarPid: number;
  readonly #tail: string[] = [];

  constructor(logger: RuntimeLogger, sidecarPid: number) {
    this.#logger = logger;
    this.#sidecarPid = sidecarPid;
  }

  line(line: string): void {
    const diagnostic = parseSidecarDiagnostic(line);
    if (diagnostic === undefined) {
      if (line.trim() === '') return;
      this.#tail.push(line);
      if (this.#tail.length > stderrTailLimits.lines) this.#tail.shift();
      return;
    }
    const event = diagnosticEvents[diagnostic.prefix];
    const fields = { event: event ?? 'agent_session.claude_sdk.diagnostic', sidecarPid: this.#sidecarPid };
    if (event === undefined) {
      // An unknown prefix: say it exists, not what it carries.
      this.#logger.debug({ ...fields, prefix: diagnostic.prefix }, 'sidecar diagnostic');
    } else if (diagnostic.record.severity === 'warning') {
      this.#logger.warn({ ...fields, diagnostic: diagnostic.record }, 'sidecar diagnostic');
    } else if (diagnostic.prefix === 'CLAUDE_CODE_AUTH_REFRESH_DEBUG') {
      this.#logger.debug({ ...fields, diagnostic: diagnostic.record }, 'sidecar diagnostic');
    } else {
      this.#logger.info({ ...fields, diagnostic: diagnostic.record }, 'sidecar diagnostic');
    }
  }

  /** The last non-diagnostic lines, control characters removed, cut to the newest `stderrTailLimits.chars`. */
  tail(): string {
    const text = this.#tail
      .join('\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
      .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]|[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
      .trim();
    return text.length > stderrTailLimits.chars ? `…${text.slice(text.length - stderrTailLimits.chars + 1)}` : text;
  }
}
