// A hand-written SVG stacked bar chart (no charting library: the remote's bundle budget is
// tight). One tab stop: the arrow keys, Home and End move between the days, each bar carries
// its day's values as its accessible name, and the readout under the chart says them too.
import { type KeyboardEvent, useId, useRef, useState } from 'react';
import { Box, HStack, Text, chakra } from '@aim/shared-kit/ui';
import { axisTicks, dayLabel, FAMILY_COLOR, formatDay, type Usage, USAGE_FAMILIES } from './usage-rules.ts';

const BAR = 18;
const GAP = 6;
const HEIGHT = 160;
const LEFT = 44;
const TOP = 8;
const BOTTOM = 24;
// room for the last day's date under the rightmost bar
const RIGHT = 20;

export function UsageChart({ usage }: { usage: Usage }) {
  const [active, setActive] = useState(usage.days.length - 1);
  const [focused, setFocused] = useState(false);
  const [hovered, setHovered] = useState<number | null>(null);
  const bars = useRef<(SVGGElement | null)[]>([]);
  const titleId = useId();
  const ticks = axisTicks(usage.max);
  const top = ticks[ticks.length - 1];
  const plotRight = LEFT + usage.days.length * (BAR + GAP);
  const width = plotRight + RIGHT;
  const scale = (n: number) => (n / top) * HEIGHT;
  const shown = hovered ?? (focused ? active : null);

  function move(to: number) {
    const next = Math.max(0, Math.min(usage.days.length - 1, to));
    setActive(next);
    bars.current[next]?.focus();
  }

  function onKeyDown(event: KeyboardEvent) {
    const to = { ArrowLeft: active - 1, ArrowRight: active + 1, Home: 0, End: usage.days.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    move(to);
  }

  return (
    <Box>
      <Box overflowX="auto">
        <chakra.svg
          role="group"
          aria-labelledby={titleId}
          viewBox={`0 0 ${width} ${TOP + HEIGHT + BOTTOM}`}
          w="full"
          minW="lg"
          h="auto"
          display="block"
          onKeyDown={onKeyDown}
          data-testid="usage-chart"
        >
          <title id={titleId}>Credits spent per day, last {usage.days.length} days (UTC). Use the arrow keys to move between days.</title>
          {ticks.map((tick) => (
            <chakra.g key={tick} aria-hidden="true">
              <chakra.line x1={LEFT} x2={plotRight} y1={TOP + HEIGHT - scale(tick)} y2={TOP + HEIGHT - scale(tick)} stroke="border" strokeWidth="1" />
              <chakra.text x={LEFT - 6} y={TOP + HEIGHT - scale(tick) + 4} textAnchor="end" fontSize="10px" fill="fg.muted">
                {tick.toLocaleString('en-US')}
              </chakra.text>
            </chakra.g>
          ))}
          {usage.days.map((day, i) => {
            const x = LEFT + i * (BAR + GAP) + GAP / 2;
            let y = TOP + HEIGHT;
            return (
              <chakra.g
                key={day.day}
                ref={(el: SVGGElement | null) => {
                  bars.current[i] = el;
                }}
                role="img"
                aria-label={dayLabel(day)}
                tabIndex={i === active ? 0 : -1}
                onFocus={() => {
                  setActive(i);
                  setFocused(true);
                }}
                onBlur={() => setFocused(false)}
                onMouseEnter={() => setHovered(i)}
                onMouseLeave={() => setHovered(null)}
                outline="none"
                cursor="default"
                data-testid="usage-bar"
                data-day={day.day}
              >
                {/* the hit area and the focus ring */}
                <chakra.rect
                  x={x - GAP / 2}
                  y={TOP}
                  width={BAR + GAP}
                  height={HEIGHT}
                  fill={shown === i ? 'bg.muted' : 'transparent'}
                  stroke={focused && active === i ? 'colorPalette.focusRing' : 'none'}
                  colorPalette="brand"
                  strokeWidth="2"
                  rx="3"
                />
                {USAGE_FAMILIES.filter((f) => day.byFamily[f] > 0).map((f) => {
                  const h = scale(day.byFamily[f]);
                  y -= h;
                  return (
                    <chakra.rect key={f} x={x} y={y} width={BAR} height={Math.max(h, 1)} fill={FAMILY_COLOR[f]} data-family={f}>
                      <title>{`${f}: ${day.byFamily[f]}`}</title>
                    </chakra.rect>
                  );
                })}
                {(i % 5 === 4 || i === usage.days.length - 1) && (
                  <chakra.text x={x + BAR / 2} y={TOP + HEIGHT + 16} textAnchor="middle" fontSize="10px" fill="fg.muted" aria-hidden="true">
                    {formatDay(day.day)}
                  </chakra.text>
                )}
              </chakra.g>
            );
          })}
        </chakra.svg>
      </Box>
      <HStack minH="6" mt="1">
        <Text textStyle="sm" color={shown === null ? 'fg.muted' : 'fg'} aria-live="polite" data-testid="usage-readout">
          {shown === null ? 'Hover or focus a day to read its values.' : dayLabel(usage.days[shown])}
        </Text>
      </HStack>
    </Box>
  );
}
