// A tap reporter that passes the raw TAP through and ends with the plain line CI reads:
// "N passed, N failed" (", N skipped" when any were skipped or todo).
// It counts exactly what tap counts for its closing `# { total, pass, fail }` comment: tap-parser
// surfaces every test point to the root parser as a result, except a subtest's own summary line
// when it only repeats the subtest's outcome. So a failed subtest counts once, and a subtest that
// ran no assertion at all still counts as one pass (as tap counts it).
// Above that line it names every failed test point, "file > subtest > assertion": a log shown
// only by its tail still says what failed.
import { Transform } from 'node:stream';
import { Parser } from 'tap-parser';

export default class CountsReporter extends Transform {
  #parser = new Parser();
  #pass = 0;
  #fail = 0;
  #skip = 0;
  #failed = [];

  constructor() {
    super();
    this.#parser.on('pass', () => this.#pass++);
    this.#parser.on('fail', (result) => {
      this.#fail++;
      this.#failed.push(result.fullname);
    });
    this.#parser.on('skip', () => this.#skip++);
    this.#parser.on('todo', () => this.#skip++);
  }

  _transform(chunk, _encoding, callback) {
    this.#parser.write(chunk);
    callback(null, chunk);
  }

  _flush(callback) {
    this.#parser.end();
    const skipped = this.#skip ? `, ${this.#skip} skipped` : '';
    const failed = this.#failed.map((name) => `not ok: ${name}\n`).join('');
    callback(null, `\n${failed}${this.#pass} passed, ${this.#fail} failed${skipped}\n`);
  }
}
