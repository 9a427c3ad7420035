/**
 * Control numbers of interchanges pier builds for a partner: taken in the transaction that
 * stores the outbound message, one statement for all the levels an interchange needs. The
 * statement updates (or first inserts) one row per level and holds its row lock until the
 * transaction ends, so a second node waits for the first and takes the number after it; a
 * transaction that rolls back (a refused build, a node killed with -9) gives its numbers back,
 * so the numbers stay unique, increasing and without gaps across nodes and restarts.
 *
 * Rows touched: edi_control_number (partner, direction, level), in level order.
 */

export {
  ControlNumbersExhausted,
  controlLevels,
  maxControl,
  takeControlNumbers,
  type ControlBlock,
  type ControlDirection,
  type ControlLevel,
} from '../../storage/repositories/control-numbers.js';
