/** Tests read a row's fields without first narrowing it by role: a field its role lacks reads as undefined. */
import type { AssistantRow, ChangesRow, MessageView, NoticeRow, ShellRow, ToolResultRow, UserRow } from '../../src/shared/transcript/rows.ts';

type Fields<R> = Omit<R, 'role'>;

/** Every row field, each optional, beside what every row has. */
export type AnyRow = Pick<MessageView, 'role' | 'id' | 'blocks' | 'final'> &
  Partial<Fields<UserRow> & Fields<AssistantRow> & Fields<ToolResultRow> & Fields<NoticeRow> & Fields<ChangesRow> & Fields<ShellRow>>;

/** `m` as its fields, for assertions that compare them whatever the row's role. */
export function anyRow(m: MessageView): AnyRow;
export function anyRow(m: MessageView | undefined): AnyRow | undefined;
export function anyRow(m: MessageView | undefined): AnyRow | undefined {
  return m;
}
