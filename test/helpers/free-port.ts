/** A TCP port on 127.0.0.1 that nothing listens on now, for a server a test starts. */
export { freePort } from '../../cli/bench/free-port.js';
