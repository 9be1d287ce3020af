// Debian's Python 3 with Authlib and requests (python3-authlib, python3-requests; .ci/run installs
// them where missing): what the Python samples of the guide, the Python sample app and the interop
// harness run on. /usr/bin/python3, because the `python3` first on PATH (pyenv, a venv) may not see
// Debian's modules.
import { spawnSync } from 'node:child_process';

export const python = '/usr/bin/python3';

const probe = spawnSync(python, ['-c', 'import authlib, requests; print(authlib.__version__)'], { encoding: 'utf8' });

/** Authlib's version, or undefined when Python, Authlib or requests is missing. */
export const authlibVersion = probe.status === 0 ? probe.stdout.trim() : undefined;

/** A test's `skip` option: false, or why the Python tests cannot run here. */
export const skipWithoutAuthlib: false | string = authlibVersion
  ? false
  : 'Debian python3-authlib and python3-requests are not installed (apt-get install)';
