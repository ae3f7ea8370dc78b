// The CLI's commands print columns with the kernel's helper, as contributed commands do.
export { formatColumns } from '@longhaul/core';
