/** A small time-series chart drawn by uPlot, sized to its container. */
import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { StepSeries } from './chain-rates.js';

export function StepChart({ series, label, testId }: { series: StepSeries; label: string; testId?: string }): JSX.Element {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);

  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    const width = (): number => Math.max(240, element.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height: 200,
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.15)] } },
        series: [
          {},
          { label, stroke: '#1f6feb', fill: 'rgba(31, 111, 235, 0.12)', width: 2, paths: uPlot.paths.stepped!({ align: 1 }), points: { show: false } },
        ],
        axes: [{ stroke: '#5d6776' }, { stroke: '#5d6776', size: 50, label }],
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
      },
      [[], []],
      element,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: width(), height: 200 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = undefined;
    };
  }, [label]);

  useEffect(() => {
    plot.current?.setData([[...series.times], [...series.values]]);
  }, [series]);

  return <div class="chart" ref={container} data-testid={testId} />;
}
