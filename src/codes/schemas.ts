import { Type } from 'typebox';

export const CodeListEntry = Type.Object(
  {
    code: Type.String({ description: 'The value to send in complianceInfo' }),
    description: Type.String({ description: 'Human-readable meaning' }),
  },
  { $id: 'CodeListEntry', additionalProperties: false },
);

export const CodeList = (example: { code: string; description: string }) =>
  Type.Array(Type.Ref('CodeListEntry'), { examples: [[example]] });
