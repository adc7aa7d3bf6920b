import { defineProject } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

export default defineProject(sharedTestConfig(import.meta.url));
