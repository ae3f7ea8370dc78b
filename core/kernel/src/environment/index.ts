export * from './images.js';
export * from './requirements.js';
