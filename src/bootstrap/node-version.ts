/** The Node.js majors Joma supports; 24 LTS is the target. */
export const TARGET_NODE_MAJOR = 24;
export const MIN_SUPPORTED_NODE_MAJOR = 22;

/**
 * The one start-up warning for a Node.js that is past end of life (or
 * otherwise older than the supported minimum), or undefined when the
 * runtime is supported. `version` is `process.version` (e.g. `v20.19.2`).
 */
export function nodeVersionWarning(version: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (!Number.isInteger(major) || major >= MIN_SUPPORTED_NODE_MAJOR) return undefined;
  return (
    `Node.js ${version} is not supported (past end of life, no security fixes): ` +
    `Joma runs on it for now, but upgrade to Node.js ${TARGET_NODE_MAJOR} LTS ` +
    `(see .nvmrc; e.g. \`nvm install ${TARGET_NODE_MAJOR}\`, or the node:${TARGET_NODE_MAJOR}-slim image).`
  );
}
