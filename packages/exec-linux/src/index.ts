/**
 * @ipsets/exec-linux — the Linux port for @ipsets/core and a node agent.
 *
 * @packageDocumentation
 */
