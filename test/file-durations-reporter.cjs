// A node:test reporter that adds up each test file's top-level durations and writes them as JSON, for
// run-all's list of the slowest files.
module.exports = async function* fileDurations(source) {
  const durations = {};
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      durations[event.data.file] = (durations[event.data.file] ?? 0) + (event.data.details?.duration_ms ?? 0);
    }
  }
  yield JSON.stringify(durations);
};
