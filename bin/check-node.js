// Exits with a plain message when the running Node.js is older than Coffer needs. Plain
// JavaScript that any Node.js can parse, so it runs before the TypeScript sources are loaded
// (older Node.js fails on them with ERR_UNKNOWN_FILE_EXTENSION). Imported first by `coffer`,
// and run by `npm run sandbox`, `npm run devserver` and `npm test` before anything else.
const required = 24;
const found = process.versions.node;
if (Number(found.split('.')[0]) < required) {
  process.stderr.write(
    `Coffer needs Node.js >= ${required}, found ${found}.\n` +
      `Install Node.js ${required} (https://nodejs.org/en/download, or \`nvm install ${required}\`), ` +
      `or let \`bash .ci/run\` put it in ~/.cache/coffer from the npm registry.\n`,
  );
  process.exit(1);
}
