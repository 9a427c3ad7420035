// The file piscina loads in each pool thread (open-pool.ts): CommonJS, so that piscina's require()
// of it needs no ES module loader. piscina requires its task file first and imports it only when
// that fails; on Node 20.19 and later, require() of an ES module instantiates its whole graph
// synchronously, and a thread ended in the middle of that (a receiver stopped while its pool was
// still loading the AS2 modules) aborted the whole process with V8's fatal "IsGraphAsync must be
// used on an instantiated module". An import() that is cut short only rejects.
'use strict';
const { workerData } = require('node:worker_threads');

/** The task module (open-worker.js, or the sources' open-worker-sources.mjs), imported once. */
let loaded;

module.exports = function open(task) {
  loaded ??= import(workerData.taskModule).then((module) => module.default);
  return loaded.then((run) => run(task));
};
