"""The Java tier: Java sources of JVM-side encoders (``java/``) and the jar built from them."""
