export { availableCores, cgroupCpuLimit } from './cores.js';
export {
  type LaunchExit,
  type LaunchedProcess,
  type LaunchFailure,
  type LaunchOptions,
  ProcessLauncher,
  processLauncher,
} from './launcher.js';
export { caseSlots, type Release, Slots } from './slots.js';
