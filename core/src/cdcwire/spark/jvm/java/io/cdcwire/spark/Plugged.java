package io.cdcwire.spark;

/** A plugin's JVM class, made by name with its configuration text (its public one-String constructor). */
final class Plugged {
    private Plugged() {
    }

    static <T> T made(String className, Class<T> kind, String configText) {
        try {
            return kind.cast(Class.forName(className).getConstructor(String.class).newInstance(configText));
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("the JVM codec class " + className + " is not a " + kind.getSimpleName()
                    + " with a public (String configText) constructor: " + e, e);
        }
    }
}
