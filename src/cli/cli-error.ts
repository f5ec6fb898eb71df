/** Bad input on the command line: the message is printed and the exit code is 2. */
export class CliError extends Error {}
