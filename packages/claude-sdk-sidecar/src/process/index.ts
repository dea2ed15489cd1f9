export { parseSidecarDiagnostic, type SidecarDiagnostic } from './sidecarDiagnostic.ts';
export {
  type BuiltSidecarState,
  builtSidecarEntry,
  builtSidecarState,
  SIDECAR_BUILT_ENTRY,
  SIDECAR_SOURCE_ENTRY,
  SidecarNotBuiltError,
} from './sidecarEntry.ts';
export {
  type SentRequest,
  type SidecarExit,
  type SidecarLogEntry,
  type SidecarProcess,
  type SidecarProcessListenerKind,
  type SidecarProcessOptions,
  type SidecarRequestLine,
  spawnSidecarProcess,
} from './sidecarProcess.ts';
