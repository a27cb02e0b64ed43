// placeholder: replaced by the java branch
