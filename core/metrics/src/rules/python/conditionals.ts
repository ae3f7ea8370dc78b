import { define } from '../define.js';

const python = define('python');

export const conditionals = [
  python({
    id: 'py-return-bool-ladder',
    category: 'conditional-ladder',
    message: 'if/else that returns True/False: return the condition itself',
    weight: 2,
    rule: { kind: 'if_statement', pattern: 'if $C:\n    return True\nelse:\n    return False' },
    flag: 'def f(x):\n    if x > 1:\n        return True\n    else:\n        return False\n',
    pass: 'def f(x):\n    return x > 1\n',
  }),
];
