export { parseSidecarDiagnostic, type SidecarDiagnostic } from './sidecarDiagnostic.ts';
export {
  type SentRequest,
  type SidecarExit,
  type SidecarLogEntry,
  type SidecarProcess,
  type SidecarProcessOptions,
  type SidecarRequestLine,
  spawnSidecarProcess,
} from './sidecarProcess.ts';
