/** Runs every benchmark of @ipsets/exec-linux (needs root for the kernel; skips with a reason otherwise). */
await import('./port.js');

export {};
