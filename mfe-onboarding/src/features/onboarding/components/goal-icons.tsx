import { Icon } from '@aim/shared-kit/ui';
import type { Goal } from '../onboarding-model.ts';

// Simple line icons drawn for this screen (24-unit grid, stroke follows the text colour).
const PATHS: Record<Goal, string[]> = {
  dashboard: ['M4 5h16v14H4z', 'M4 15l4.5-4.5 3.5 3.5 2.5-2.5L20 17', 'M15.5 8.5h.01'],
  api: ['M8 8l-4 4 4 4', 'M16 8l4 4-4 4', 'M13.5 6l-3 12'],
  'ai-photo': ['M4 8h3l1.5-2h7L17 8h3v11H4z', 'M12 16.5a3 3 0 1 0 0-6 3 3 0 0 0 0 6z'],
};

export function GoalIcon({ goal }: { goal: Goal }) {
  return (
    <Icon size="md" aria-hidden>
      <svg aria-hidden="true" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round">
        {PATHS[goal].map((d) => (
          <path key={d} d={d} />
        ))}
      </svg>
    </Icon>
  );
}
