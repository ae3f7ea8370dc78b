export { default } from '{{root}}/vitest.shared.js';
