import { prerequisite } from '@longhaul/testkit/prerequisites';
import { defaultImage } from '../src/index.js';

let found = '';

/** Whether the Docker tests can run: a daemon and a longhaul base image (any of them). */
export const dockerReady = await prerequisite({
  name: 'Docker with a longhaul base image',
  install: 'install the Debian package docker.io, start dockerd and run `longhaul images build`',
  probe: async () => {
    try {
      found = await defaultImage();
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  },
});

/** The base image the tests validate in ('' without Docker). */
export const image = found;
