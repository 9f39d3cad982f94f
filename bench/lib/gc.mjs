// A full garbage collection on demand without starting node with --expose-gc. That flag is no
// option for the processes the benches measure: node refuses it in a worker's execArgv, and the
// TLS server starts its verifier worker with the parent's execArgv (see bench/README.md,
// "The socket hang up of footprint").
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc;
export function forceGc() {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc');
  }
  gc();
}
