"""What every Spark job here needs: errors carried from executors to the driver, progress, executor-side collection, and one resolved sink per executor."""
