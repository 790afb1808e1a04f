/** A setting or flag value paywalld cannot use: the CLI prints it with a pointer to --help and exits 2. */
export class ConfigError extends Error {}
