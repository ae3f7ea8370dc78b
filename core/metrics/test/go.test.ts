import { describe, expect, it } from 'vitest';
import { analyzeProject, analyzeSource } from '../src/index.js';

const program = `package shapes

import "fmt"

// Area of a shape.
func Area(kind string, a, b float64) float64 {
	switch kind {
	case "rect":
		return a * b
	case "tri":
		return a * b / 2
	default:
		if a > 0 && b > 0 {
			return 0
		}
	}
	return -1
}

type Box struct{ w, h int }

func (b *Box) Grow(n int) {
	for i := 0; i < n; i++ {
		if b.w > b.h {
			b.h++
		} else {
			b.w++
		}
	}
	fmt.Println(b)
}

var double = func(x int) int { return x * 2 }
`;

describe('Go metrics', () => {
  const analysis = analyzeSource({ path: 'shapes.go', text: program }, { rules: false });
  const byName = new Map(analysis.callables.map((callable) => [callable.name, callable]));

  it('counts logical lines without comments and blanks', () => {
    expect(analysis.metrics.loc).toBe(27);
  });

  it('finds functions, methods and function literals bound to names', () => {
    expect([...byName.keys()]).toEqual(['Area', 'Grow', 'double']);
  });

  it('computes SLOC, cyclomatic and cognitive complexity', () => {
    // case, case, if, && (default is not a decision)
    expect(byName.get('Area')).toMatchObject({ sloc: 13, cc: 5 });
    // switch +1, if nested in switch +2, && +1
    expect(byName.get('Area')?.cognitive).toBe(4);
    // for, if
    expect(byName.get('Grow')).toMatchObject({ sloc: 10, cc: 3 });
    // for +1, if +2 (nested), else +1
    expect(byName.get('Grow')?.cognitive).toBe(4);
    expect(byName.get('double')).toMatchObject({ sloc: 1, cc: 1 });
  });

  it('finds clones across Go files', async () => {
    const report = await analyzeProject([
      { path: 'a.go', text: program },
      { path: 'b.go', text: program.replace('Area', 'Surface').replace('Grow', 'Expand') },
    ]);
    expect(report.summary.clone_groups).toBeGreaterThanOrEqual(2);
    expect(report.summary.clone_ratio).toBeGreaterThan(0.8);
  });
});
