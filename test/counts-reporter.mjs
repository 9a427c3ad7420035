// A tap reporter that passes the raw TAP through and ends with the plain line CI reads:
// "N passed, N failed" (", N skipped" when any were skipped). A failed subtest counts once.
import { Transform } from 'node:stream';
import { Parser } from 'tap-parser';

export default class CountsReporter extends Transform {
  #parser = new Parser();
  #pass = 0;
  #fail = 0;
  #skip = 0;

  constructor() {
    super();
    const watch = (parser) => {
      const state = { fails: 0 };
      let child = null;
      parser.on('child', (c) => {
        child = watch(c);
      });
      parser.on('assert', (a) => {
        const sub = child;
        child = null;
        if (sub) {
          if (!a.ok && !a.skip && !a.todo && sub.fails === 0) {
            this.#fail++;
            state.fails++;
          } else state.fails += sub.fails;
          return;
        }
        if (a.skip || a.todo) this.#skip++;
        else if (a.ok) this.#pass++;
        else {
          this.#fail++;
          state.fails++;
        }
      });
      return state;
    };
    watch(this.#parser);
  }

  _transform(chunk, _encoding, callback) {
    this.#parser.write(chunk);
    callback(null, chunk);
  }

  _flush(callback) {
    this.#parser.end();
    const skipped = this.#skip ? `, ${this.#skip} skipped` : '';
    callback(null, `\n${this.#pass} passed, ${this.#fail} failed${skipped}\n`);
  }
}
