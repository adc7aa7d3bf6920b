/**
 * @ipsets/cli — the `ipsets` command.
 *
 * @packageDocumentation
 */
