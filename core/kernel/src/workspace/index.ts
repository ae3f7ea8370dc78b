export * from './excludes.js';
export * from './file-size.js';
export * from './folder-judge-area.js';
export * from './folder-workspace.js';
export * from './skip-note.js';
export { removeStaleStampsFolders } from './stamps-folder.js';
export * from './walk.js';
export * from './workspace-handle.js';
