export * from './bootstrap.js';
