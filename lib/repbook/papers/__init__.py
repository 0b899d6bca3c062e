"""One module (or small package) per paper. A paper module never imports another paper's module."""
