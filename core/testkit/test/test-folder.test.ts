import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testFolder } from '../src/index.js';

describe('testFolder', () => {
  let made = '';
  it('makes a folder in the temp directory', async () => {
    made = await testFolder('longhaul-test-folder-');
    expect(dirname(made)).toBe(tmpdir());
    expect(statSync(made).isDirectory()).toBe(true);
  });

  it('removes it when the test that made it ends', () => {
    expect(made).not.toBe('');
    expect(existsSync(made)).toBe(false);
  });
});
