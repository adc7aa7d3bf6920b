import { describePortContract } from '@ipsets/testing/vitest';
import { FakeKernel, createFakePort } from '@ipsets/fake-kernel';

describePortContract('fake port over FakeKernel', async () => {
  const kernel = new FakeKernel();
  return {
    port: createFakePort(kernel),
    reference: async (set) => kernel.reference(set),
    unreference: async (set) => kernel.unreference(set),
  };
});
