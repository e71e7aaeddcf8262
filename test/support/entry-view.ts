/** The compared fields of an entry as `plan`'s report and JSON show them, at their zero values: tests spread what they set over these. */
export const ZERO_ENTRY_FIELDS = {
  dnsNames: [] as string[],
  federatesWith: [] as string[],
  x509SVIDTTL: 0,
  jwtSVIDTTL: 0,
  admin: false,
  downstream: false,
  hint: '',
  storeSVID: false,
};
