export * from './requirements.js';
