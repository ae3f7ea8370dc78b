export {
  type LaunchedProcess,
  type LaunchExit,
  type LaunchFailure,
  type LaunchOptions,
  ProcessLauncher,
  processLauncher,
} from './launcher.js';
