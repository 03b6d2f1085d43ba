/**
 * Loaded before every test file (npm test: node --import): an unhandled
 * promise rejection anywhere fails the run, as the module promises none.
 */
process.on("unhandledRejection", (err) => {
  process.exitCode = 1;
  throw err;
});
