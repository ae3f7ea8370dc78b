import type { SkippedFile } from '../contracts/sandbox.js';
import { formatSize } from './file-size.js';

const notes: Record<NonNullable<SkippedFile['reason']>, string> = {
  size: 'over maxFileSize',
  link: 'a link leading out of the workspace',
  type: 'a FIFO, socket or device, not a regular file',
  unreadable: 'not readable',
  name: 'a name that is not UTF-8',
  depth: 'a folder nested deeper than a walk goes',
  count: 'where the walk stopped: the workspace holds more entries than a snapshot takes',
};

/** Why a snapshot left a file out, for warnings and diffs: `12.0 MiB, over maxFileSize`. */
export function skipNote(file: SkippedFile): string {
  const reason = notes[file.reason ?? 'size'];
  return file.reason === undefined || file.reason === 'size' ? `${formatSize(file.size)}, ${reason}` : reason;
}
