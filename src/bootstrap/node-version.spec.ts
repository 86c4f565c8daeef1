import { nodeVersionWarning } from './node-version';

describe('nodeVersionWarning', () => {
  it.each(['v20.19.2', 'v18.20.0', 'v21.7.3'])(
    'warns on %s, naming the version and the fix',
    (v) => {
      const warning = nodeVersionWarning(v);
      expect(warning).toContain(v);
      expect(warning).toContain('Node.js 24 LTS');
    },
  );

  it.each(['v22.12.0', 'v24.21.0', 'v26.1.0'])('is silent on supported %s', (v) => {
    expect(nodeVersionWarning(v)).toBeUndefined();
  });
});
