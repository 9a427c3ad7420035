// A tap reporter that passes the raw TAP through and ends with the plain line CI reads:
// "N passed, N failed" (", N skipped" when any were skipped or todo).
// It counts exactly what tap counts for its closing `# { total, pass, fail }` comment: tap-parser
// surfaces every test point to the root parser as a result, except a subtest's own summary line
// when it only repeats the subtest's outcome. So a failed subtest counts once, and a subtest that
// ran no assertion at all still counts as one pass (as tap counts it).
// Above that line it names every failed test point, "file > subtest > assertion", with the
// comments printed since the test point before it (a test's "where things stand" when a wait
// timed out): a log shown only by its tail still says what failed, and why.
import { Transform } from 'node:stream';
import { Parser } from 'tap-parser';

/** The most comments shown above a failure's name, and the longest each may be. */
const maxComments = 4;
const maxCommentChars = 3000;

export default class CountsReporter extends Transform {
  #parser = new Parser();
  #pass = 0;
  #fail = 0;
  #skip = 0;
  #failed = [];
  /** Comment lines since the last test point, and the part of a line not yet complete. */
  #comments = [];
  /** The comments above the last `not ok`: tap-parser reports the failure after its YAML block. */
  #aboveFailure = [];
  #partial = '';

  constructor() {
    super();
    this.#parser.on('pass', () => this.#pass++);
    this.#parser.on('fail', (result) => {
      this.#fail++;
      this.#failed.push({ name: result.fullname, comments: this.#aboveFailure.slice(-maxComments) });
    });
    this.#parser.on('skip', () => this.#skip++);
    this.#parser.on('todo', () => this.#skip++);
  }

  _transform(chunk, _encoding, callback) {
    // Line by line, so that the comments kept are those above the test point being parsed.
    const lines = (this.#partial + chunk.toString()).split('\n');
    this.#partial = lines.pop();
    for (const line of lines) this.#line(line);
    callback(null, chunk);
  }

  #line(line) {
    const text = line.trim();
    const comment = /^# (?!Subtest:|time=|\{ total)/.test(text);
    if (comment)
      this.#comments.push(text.length > maxCommentChars ? `${text.slice(0, maxCommentChars)}…` : text);
    if (/^not ok\b/.test(text)) this.#aboveFailure = this.#comments;
    this.#parser.write(`${line}\n`);
    if (/^(not )?ok\b/.test(text)) this.#comments = [];
  }

  _flush(callback) {
    if (this.#partial) this.#line(this.#partial);
    this.#parser.end();
    const skipped = this.#skip ? `, ${this.#skip} skipped` : '';
    const failed = this.#failed
      .map(({ name, comments }) => `not ok: ${name}\n${comments.map((c) => `  ${c}\n`).join('')}`)
      .join('');
    callback(null, `\n${failed}${this.#pass} passed, ${this.#fail} failed${skipped}\n`);
  }
}
