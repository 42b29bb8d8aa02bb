import { NativeSelect } from '@aim/shared-kit/ui';
import { useTheme, type ThemePreference } from '@aim/shared-kit/theme';

export function ThemeSwitch() {
  const { preference, setPreference } = useTheme();
  return (
    <NativeSelect.Root size="sm" width="auto">
      <NativeSelect.Field
        aria-label="Theme"
        data-testid="theme-switch"
        value={preference}
        onChange={(e) => setPreference(e.currentTarget.value as ThemePreference)}
      >
        <option value="light">Light</option>
        <option value="dark">Dark</option>
        <option value="system">System</option>
      </NativeSelect.Field>
      <NativeSelect.Indicator />
    </NativeSelect.Root>
  );
}
