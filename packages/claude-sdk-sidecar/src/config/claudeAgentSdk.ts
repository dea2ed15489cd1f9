type ClaudeAgentSdk = typeof import('@anthropic-ai/claude-agent-sdk');

let loading: Promise<ClaudeAgentSdk> | undefined;
let loaded: ClaudeAgentSdk | undefined;

/**
 * Imports the Claude Agent SDK once, on first use. It is a megabyte of JavaScript (about 115 ms and 35 MB
 * to load on a 2-core machine) that a sidecar serving only test-driver sessions never needs, and that a
 * sidecar's start must not wait for before it reads its first request. Nothing else may import the SDK's
 * values statically: the built entry keeps a static import even inside a lazily evaluated module.
 */
export function loadClaudeAgentSdk(): Promise<ClaudeAgentSdk> {
  loading ??= import('@anthropic-ai/claude-agent-sdk').then(
    (sdk) => {
      loaded = sdk;
      return sdk;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The SDK once `loadClaudeAgentSdk()` has resolved, for callers that must stay synchronous (`query()`). */
export function loadedClaudeAgentSdk(): ClaudeAgentSdk {
  if (loaded === undefined) throw new Error('the Claude Agent SDK is not loaded yet: await loadClaudeAgentSdk() first');
  return loaded;
}
