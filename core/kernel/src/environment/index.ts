export * from './disk-watch.js';
export * from './images.js';
export * from './requirements.js';
