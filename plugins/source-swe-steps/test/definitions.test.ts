import { describe, expect, it } from 'vitest';
import { diffDefinitions } from '../src/index.js';

const before = `"""Shapes."""


def area(shape):
    """The area of a shape."""
    return shape.area()


def legacy(x):
    return x


class Circle:
    """A circle of a radius."""

    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return 3.14 * self.radius ** 2
`;

const after = `"""Shapes."""


def area(shape):
    """The area of a shape."""
    return shape.area()


class Circle:
    """A circle of a radius."""

    def __init__(self, radius):
        self.radius = radius

    def area(self):
        """Pi r squared, with a better pi."""
        return 3.14159 * self.radius ** 2

    @classmethod
    def unit(cls) -> "Circle":
        """A circle of radius one."""
        return cls(1)


class Square(
    object,
):
    """A square.

        Its sides are equal.
    """

    def area(self):
        # the side squared
        def side():
            return self.side
        return side() ** 2
`;

describe('definitions from a patch', () => {
  it('added, modified and deleted functions and classes with qualified names, declarations and docstrings', () => {
    const changes = diffDefinitions('shapes.py', before, after);
    expect(changes.added).toEqual([
      {
        file: 'shapes.py',
        kind: 'function',
        name: 'Circle.unit',
        declaration: 'def unit(cls) -> "Circle":',
        docstring: 'A circle of radius one.',
      },
      { file: 'shapes.py', kind: 'function', name: 'Square.area.side', declaration: 'def side():' },
      { file: 'shapes.py', kind: 'function', name: 'Square.area', declaration: 'def area(self):' },
      {
        file: 'shapes.py',
        kind: 'class',
        name: 'Square',
        declaration: 'class Square(\n    object,\n):',
        docstring: 'A square.\n\nIts sides are equal.',
      },
    ]);
    // Circle's own text did not change: adding Circle.unit and changing Circle.area lists those only.
    expect(changes.modified.map((d) => [d.name, d.docstring])).toEqual([
      ['Circle.area', 'Pi r squared, with a better pi.'],
    ]);
    expect(changes.deleted).toEqual([
      { file: 'shapes.py', kind: 'function', name: 'legacy', declaration: 'def legacy(x):' },
    ]);
  });

  it('a new file adds everything in it, a deleted file deletes everything', () => {
    expect(diffDefinitions('shapes.py', undefined, before).added.map((d) => d.name)).toEqual([
      'area',
      'legacy',
      'Circle.__init__',
      'Circle.area',
      'Circle',
    ]);
    expect(diffDefinitions('shapes.py', before, undefined).deleted).toHaveLength(5);
  });

  it('a change to a class header or docstring modifies the class', () => {
    const changed = before.replace('"""A circle of a radius."""', '"""A round shape."""');
    expect(diffDefinitions('shapes.py', before, changed).modified.map((d) => d.name)).toEqual(['Circle']);
  });

  it('reads TypeScript through the same path, with JSDoc as the docstring', () => {
    const ts = `/** Adds. */
export function add(a: number, b: number): number {
  return a + b;
}

export class Counter {
  private n = 0;
  /** One more. */
  increment(): number {
    return ++this.n;
  }
}
`;
    const changes = diffDefinitions('src/math.ts', undefined, ts);
    expect(changes.added).toEqual([
      {
        file: 'src/math.ts',
        kind: 'function',
        name: 'add',
        declaration: 'function add(a: number, b: number): number',
        docstring: 'Adds.',
      },
      {
        file: 'src/math.ts',
        kind: 'function',
        name: 'Counter.increment',
        declaration: 'increment(): number',
        docstring: 'One more.',
      },
      { file: 'src/math.ts', kind: 'class', name: 'Counter', declaration: 'class Counter' },
    ]);
  });

  it('files in languages it does not read give no definitions', () => {
    expect(diffDefinitions('notes.rb', undefined, 'def x; end')).toEqual({
      added: [],
      modified: [],
      deleted: [],
    });
  });
});
