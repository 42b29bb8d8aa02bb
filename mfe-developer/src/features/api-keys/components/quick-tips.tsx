import { Card, Code, List } from '@aim/shared-kit/ui';

/** Spec §2/§9: how the key and the webhook are meant to be used. */
export function QuickTips() {
  return (
    <Card.Root variant="outline" data-testid="quick-tips">
      <Card.Header>
        <Card.Title as="h2">Quick tips</Card.Title>
      </Card.Header>
      <Card.Body>
        <List.Root gap="2" textStyle="sm" ps="4">
          <List.Item>
            Send the key in the <Code size="sm">Authorization</Code> header of every request.
          </List.Item>
          <List.Item>Keep it on your server: never expose it in browser or mobile code.</List.Item>
          <List.Item>Your webhook must answer with a 2xx status; other answers are retried.</List.Item>
          <List.Item>Rotate the key as soon as it may have leaked: the old one stops working at once.</List.Item>
        </List.Root>
      </Card.Body>
    </Card.Root>
  );
}
