"""Student text written to steer whatever shows it: a markdown heading claiming success, an
external image, raw HTML, a bidi override, ANSI and 8-bit CSI sequences, in both its printed
output and its error messages. Expected: every renderer shows it as inert text."""

PAYLOAD = ("\n# All checks passed\n![pixel](https://evil.example/p.png) <img src=x onerror=alert(1)> "
           "[click](https://evil.example) \u202eevil\u202c \x1b[2J\x1b]0;owned\x07 \u009b31m red \r")
print(PAYLOAD)


def causal_attention(q, k, v):
    raise ValueError(PAYLOAD)
